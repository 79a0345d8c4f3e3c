# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T11:25:34Z"
  checksums = {
    "darwin_amd64"  = "sha256:3326287651e46a5d8cada2a9626f575e21a0bfcbcb6390953195f171a73f0b8c"
    "darwin_arm64"  = "sha256:3326287651e46a5d8cada2a9626f575e21a0bfcbcb6390953195f171a73f0b8c"
    "linux_amd64"   = "sha256:3326287651e46a5d8cada2a9626f575e21a0bfcbcb6390953195f171a73f0b8c"
    "linux_arm64"   = "sha256:3326287651e46a5d8cada2a9626f575e21a0bfcbcb6390953195f171a73f0b8c"
    "windows_amd64" = "sha256:3326287651e46a5d8cada2a9626f575e21a0bfcbcb6390953195f171a73f0b8c"
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
  resolved_at = "2026-12-02T11:25:34Z"
  checksums = {
    "darwin_amd64"  = "sha256:e403206e6471b01cd606388235cd16f588cdcaed3e10fc15a2fd8030c6895a17"
    "darwin_arm64"  = "sha256:e403206e6471b01cd606388235cd16f588cdcaed3e10fc15a2fd8030c6895a17"
    "linux_amd64"   = "sha256:e403206e6471b01cd606388235cd16f588cdcaed3e10fc15a2fd8030c6895a17"
    "linux_arm64"   = "sha256:e403206e6471b01cd606388235cd16f588cdcaed3e10fc15a2fd8030c6895a17"
    "windows_amd64" = "sha256:e403206e6471b01cd606388235cd16f588cdcaed3e10fc15a2fd8030c6895a17"
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
