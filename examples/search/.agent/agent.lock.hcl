# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:33:52Z"
  checksums = {
    "darwin_amd64"  = "sha256:50460a131d6fc1834aa75bc7c79cafcd65c4fb624fd2d27cbc53b3ce6d583677"
    "darwin_arm64"  = "sha256:50460a131d6fc1834aa75bc7c79cafcd65c4fb624fd2d27cbc53b3ce6d583677"
    "linux_amd64"   = "sha256:50460a131d6fc1834aa75bc7c79cafcd65c4fb624fd2d27cbc53b3ce6d583677"
    "linux_arm64"   = "sha256:50460a131d6fc1834aa75bc7c79cafcd65c4fb624fd2d27cbc53b3ce6d583677"
    "windows_amd64" = "sha256:50460a131d6fc1834aa75bc7c79cafcd65c4fb624fd2d27cbc53b3ce6d583677"
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
  resolved_at = "2026-12-02T02:33:52Z"
  checksums = {
    "darwin_amd64"  = "sha256:3d62ae1e0ef54370b246e9a1626e9703c748385245114642d49a5e062a889ac8"
    "darwin_arm64"  = "sha256:3d62ae1e0ef54370b246e9a1626e9703c748385245114642d49a5e062a889ac8"
    "linux_amd64"   = "sha256:3d62ae1e0ef54370b246e9a1626e9703c748385245114642d49a5e062a889ac8"
    "linux_arm64"   = "sha256:3d62ae1e0ef54370b246e9a1626e9703c748385245114642d49a5e062a889ac8"
    "windows_amd64" = "sha256:3d62ae1e0ef54370b246e9a1626e9703c748385245114642d49a5e062a889ac8"
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
  resolved_at = "2026-12-02T02:33:52Z"
  checksums = {
    "darwin_amd64"  = "sha256:e7a925f20e59efbc5294a012cdd532fcd88d343c81a3163770d12dd5b1e82f48"
    "darwin_arm64"  = "sha256:e7a925f20e59efbc5294a012cdd532fcd88d343c81a3163770d12dd5b1e82f48"
    "linux_amd64"   = "sha256:e7a925f20e59efbc5294a012cdd532fcd88d343c81a3163770d12dd5b1e82f48"
    "linux_arm64"   = "sha256:e7a925f20e59efbc5294a012cdd532fcd88d343c81a3163770d12dd5b1e82f48"
    "windows_amd64" = "sha256:e7a925f20e59efbc5294a012cdd532fcd88d343c81a3163770d12dd5b1e82f48"
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
