# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:59:26Z"
  checksums = {
    "darwin_amd64"  = "sha256:a8d174aa87b371071d65ba2d35d313b7fe70596b98a6abd19183c901e094fd22"
    "darwin_arm64"  = "sha256:a8d174aa87b371071d65ba2d35d313b7fe70596b98a6abd19183c901e094fd22"
    "linux_amd64"   = "sha256:a8d174aa87b371071d65ba2d35d313b7fe70596b98a6abd19183c901e094fd22"
    "linux_arm64"   = "sha256:a8d174aa87b371071d65ba2d35d313b7fe70596b98a6abd19183c901e094fd22"
    "windows_amd64" = "sha256:a8d174aa87b371071d65ba2d35d313b7fe70596b98a6abd19183c901e094fd22"
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
  resolved_at = "2026-12-02T02:04:12Z"
  checksums = {
    "darwin_amd64"  = "sha256:830022820cebea4c9be517442457fea07fd089425802563993ae24ff073308ce"
    "darwin_arm64"  = "sha256:830022820cebea4c9be517442457fea07fd089425802563993ae24ff073308ce"
    "linux_amd64"   = "sha256:830022820cebea4c9be517442457fea07fd089425802563993ae24ff073308ce"
    "linux_arm64"   = "sha256:830022820cebea4c9be517442457fea07fd089425802563993ae24ff073308ce"
    "windows_amd64" = "sha256:830022820cebea4c9be517442457fea07fd089425802563993ae24ff073308ce"
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
  resolved_at = "2026-12-02T02:59:26Z"
  checksums = {
    "darwin_amd64"  = "sha256:5dad5f98be1a658b4005be67e299cb243e3ea02f1966d59bc22a28adb992a9b6"
    "darwin_arm64"  = "sha256:5dad5f98be1a658b4005be67e299cb243e3ea02f1966d59bc22a28adb992a9b6"
    "linux_amd64"   = "sha256:5dad5f98be1a658b4005be67e299cb243e3ea02f1966d59bc22a28adb992a9b6"
    "linux_arm64"   = "sha256:5dad5f98be1a658b4005be67e299cb243e3ea02f1966d59bc22a28adb992a9b6"
    "windows_amd64" = "sha256:5dad5f98be1a658b4005be67e299cb243e3ea02f1966d59bc22a28adb992a9b6"
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
  tools = [
    {
      name = "glob"
      kind = "data_source"
      risk = "read_only"
    },
    {
      name = "grep"
      kind = "data_source"
      risk = "read_only"
    },
  ]
}
