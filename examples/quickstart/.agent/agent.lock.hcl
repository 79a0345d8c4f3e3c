# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T03:02:26Z"
  checksums = {
    "darwin_amd64"  = "sha256:d642dac2feb209f0b8a63af00124f5a2e8ccf84060b631a834af3b86d22ca1e8"
    "darwin_arm64"  = "sha256:d642dac2feb209f0b8a63af00124f5a2e8ccf84060b631a834af3b86d22ca1e8"
    "linux_amd64"   = "sha256:d642dac2feb209f0b8a63af00124f5a2e8ccf84060b631a834af3b86d22ca1e8"
    "linux_arm64"   = "sha256:d642dac2feb209f0b8a63af00124f5a2e8ccf84060b631a834af3b86d22ca1e8"
    "windows_amd64" = "sha256:d642dac2feb209f0b8a63af00124f5a2e8ccf84060b631a834af3b86d22ca1e8"
  }
  envelope = {
    env   = []
    run   = []
    read  = ["."]
    write = ["."]
    net   = []
  }
  config_schema = [
    {
      name        = "roots"
      type        = "list(string)"
      required    = true
      sensitive   = false
      description = "Directories the tools may touch. Absolute, or relative to the session's working directory. A path escaping every root, through .. or a symbolic link, is refused."
    },
  ]
  tools = [
    {
      name = "read_file"
      kind = "data_source"
      risk = "read_only"
    },
    {
      name = "write_file"
      kind = "resource"
      risk = "moderate"
    },
    {
      name = "edit_file"
      kind = "resource"
      risk = "moderate"
    },
    {
      name = "multi_edit"
      kind = "resource"
      risk = "moderate"
    },
  ]
}

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T03:02:26Z"
  checksums = {
    "darwin_amd64"  = "sha256:8adf31190fa7e084a73fbf685ee05e493c88b86bbc144dea712f068e7a47ced1"
    "darwin_arm64"  = "sha256:8adf31190fa7e084a73fbf685ee05e493c88b86bbc144dea712f068e7a47ced1"
    "linux_amd64"   = "sha256:8adf31190fa7e084a73fbf685ee05e493c88b86bbc144dea712f068e7a47ced1"
    "linux_arm64"   = "sha256:8adf31190fa7e084a73fbf685ee05e493c88b86bbc144dea712f068e7a47ced1"
    "windows_amd64" = "sha256:8adf31190fa7e084a73fbf685ee05e493c88b86bbc144dea712f068e7a47ced1"
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
      name        = "script"
      type        = "string"
      required    = false
      sensitive   = false
      description = "Absolute path of the script file (JSON) to replay; the file must lie where the plugin may read (the kernel's working directory, granted with allow_read). Set script or turns_json."
    },
    {
      name        = "turns_json"
      type        = "string"
      required    = false
      sensitive   = false
      description = "The script inline, as JSON text: a script object or a bare list of turns. Set script or turns_json."
    },
  ]
}
