# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:38:25Z"
  checksums = {
    "darwin_amd64"  = "sha256:e425bfa2b004324103268b538164803224cc4346a0e5ce98fcf5e6036af24eae"
    "darwin_arm64"  = "sha256:e425bfa2b004324103268b538164803224cc4346a0e5ce98fcf5e6036af24eae"
    "linux_amd64"   = "sha256:e425bfa2b004324103268b538164803224cc4346a0e5ce98fcf5e6036af24eae"
    "linux_arm64"   = "sha256:e425bfa2b004324103268b538164803224cc4346a0e5ce98fcf5e6036af24eae"
    "windows_amd64" = "sha256:e425bfa2b004324103268b538164803224cc4346a0e5ce98fcf5e6036af24eae"
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
  resolved_at = "2026-12-03T08:38:25Z"
  checksums = {
    "darwin_amd64"  = "sha256:76117d01d51a265f410ad5c7ca50fd6430d8d2fe9740a50ea44d4875a170740d"
    "darwin_arm64"  = "sha256:76117d01d51a265f410ad5c7ca50fd6430d8d2fe9740a50ea44d4875a170740d"
    "linux_amd64"   = "sha256:76117d01d51a265f410ad5c7ca50fd6430d8d2fe9740a50ea44d4875a170740d"
    "linux_arm64"   = "sha256:76117d01d51a265f410ad5c7ca50fd6430d8d2fe9740a50ea44d4875a170740d"
    "windows_amd64" = "sha256:76117d01d51a265f410ad5c7ca50fd6430d8d2fe9740a50ea44d4875a170740d"
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
