# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:23:26Z"
  checksums = {
    "darwin_amd64"  = "sha256:ededf66877100fbd55f8d4b8b7c4f9733d2295546b85fa29218deb3648ab4625"
    "darwin_arm64"  = "sha256:ededf66877100fbd55f8d4b8b7c4f9733d2295546b85fa29218deb3648ab4625"
    "linux_amd64"   = "sha256:ededf66877100fbd55f8d4b8b7c4f9733d2295546b85fa29218deb3648ab4625"
    "linux_arm64"   = "sha256:ededf66877100fbd55f8d4b8b7c4f9733d2295546b85fa29218deb3648ab4625"
    "windows_amd64" = "sha256:ededf66877100fbd55f8d4b8b7c4f9733d2295546b85fa29218deb3648ab4625"
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
}

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:23:26Z"
  checksums = {
    "darwin_amd64"  = "sha256:3c8b68b77e5a52b2563198ac677e58b67ccce3f75453eb28763853f3148dd7cd"
    "darwin_arm64"  = "sha256:3c8b68b77e5a52b2563198ac677e58b67ccce3f75453eb28763853f3148dd7cd"
    "linux_amd64"   = "sha256:3c8b68b77e5a52b2563198ac677e58b67ccce3f75453eb28763853f3148dd7cd"
    "linux_arm64"   = "sha256:3c8b68b77e5a52b2563198ac677e58b67ccce3f75453eb28763853f3148dd7cd"
    "windows_amd64" = "sha256:3c8b68b77e5a52b2563198ac677e58b67ccce3f75453eb28763853f3148dd7cd"
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

provider "search" {
  source      = "builtin/search"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:23:26Z"
  checksums = {
    "darwin_amd64"  = "sha256:01b87232ef10fb2064491f314d4287e3edb889c712b5a13d6d0946dc0c04939d"
    "darwin_arm64"  = "sha256:01b87232ef10fb2064491f314d4287e3edb889c712b5a13d6d0946dc0c04939d"
    "linux_amd64"   = "sha256:01b87232ef10fb2064491f314d4287e3edb889c712b5a13d6d0946dc0c04939d"
    "linux_arm64"   = "sha256:01b87232ef10fb2064491f314d4287e3edb889c712b5a13d6d0946dc0c04939d"
    "windows_amd64" = "sha256:01b87232ef10fb2064491f314d4287e3edb889c712b5a13d6d0946dc0c04939d"
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
      name        = "roots"
      type        = "list(string)"
      required    = true
      sensitive   = false
      description = "Directories glob and grep may search. Absolute, or relative to the session's working directory. A path escaping every root, through .. or a symbolic link, is refused; symbolic links met during a walk are not followed."
    },
  ]
}
