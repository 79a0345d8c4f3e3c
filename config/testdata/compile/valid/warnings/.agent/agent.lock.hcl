# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "readme" {
  source      = "../../_plugins/ctx"
  version     = "0.3.0"
  resolved_at = "2026-01-01T00:00:00Z"
  checksums = {
    "darwin_amd64"  = "sha256:beffcc1810360da3e1c20362bbe24a3d46e9798e2bd057709fa143ea23538824"
    "darwin_arm64"  = "sha256:beffcc1810360da3e1c20362bbe24a3d46e9798e2bd057709fa143ea23538824"
    "linux_amd64"   = "sha256:beffcc1810360da3e1c20362bbe24a3d46e9798e2bd057709fa143ea23538824"
    "linux_arm64"   = "sha256:beffcc1810360da3e1c20362bbe24a3d46e9798e2bd057709fa143ea23538824"
    "windows_amd64" = "sha256:beffcc1810360da3e1c20362bbe24a3d46e9798e2bd057709fa143ea23538824"
  }
  envelope = {
    env   = []
    run   = []
    read  = ["."]
    write = []
    net   = []
  }
  config_schema = [
    {
      name         = "files"
      type         = "list(string)"
      required     = false
      sensitive    = false
      description  = ""
      default_json = "[\"README.md\"]"
    },
    {
      name        = "token_budget"
      type        = "number"
      required    = false
      sensitive   = false
      description = "Token cap of this context provider."
    },
  ]
}

provider "gone" {
  source      = "github.com/acme/gone"
  version     = "1.0.0"
  resolved_at = "2026-01-01T00:00:00Z"
  checksums = {
    "linux_amd64" = "sha256:4444444444444444444444444444444444444444444444444444444444444444"
  }
}
