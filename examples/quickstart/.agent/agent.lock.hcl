# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-11-30T14:24:31Z"
  checksums = {
    "darwin_amd64"  = "sha256:d6364172f662e44603c5c0442d4a357bb8a44ab5c30d1742a9b5514a0dd65dfe"
    "darwin_arm64"  = "sha256:d6364172f662e44603c5c0442d4a357bb8a44ab5c30d1742a9b5514a0dd65dfe"
    "linux_amd64"   = "sha256:d6364172f662e44603c5c0442d4a357bb8a44ab5c30d1742a9b5514a0dd65dfe"
    "linux_arm64"   = "sha256:d6364172f662e44603c5c0442d4a357bb8a44ab5c30d1742a9b5514a0dd65dfe"
    "windows_amd64" = "sha256:d6364172f662e44603c5c0442d4a357bb8a44ab5c30d1742a9b5514a0dd65dfe"
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
  resolved_at = "2026-11-30T14:16:05Z"
  checksums = {
    "darwin_amd64"  = "sha256:cb48c8914a42682f359de6be8accd19500b77df3043911b27267d9d06cc7413b"
    "darwin_arm64"  = "sha256:cb48c8914a42682f359de6be8accd19500b77df3043911b27267d9d06cc7413b"
    "linux_amd64"   = "sha256:cb48c8914a42682f359de6be8accd19500b77df3043911b27267d9d06cc7413b"
    "linux_arm64"   = "sha256:cb48c8914a42682f359de6be8accd19500b77df3043911b27267d9d06cc7413b"
    "windows_amd64" = "sha256:cb48c8914a42682f359de6be8accd19500b77df3043911b27267d9d06cc7413b"
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
