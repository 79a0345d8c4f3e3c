# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-03T05:26:58Z"
  checksums = {
    "darwin_amd64"  = "sha256:881eea0c8cd7e04d6a7dc1b57bc7c18889b86e1ae9a7af6b1bd0d026581da75b"
    "darwin_arm64"  = "sha256:881eea0c8cd7e04d6a7dc1b57bc7c18889b86e1ae9a7af6b1bd0d026581da75b"
    "linux_amd64"   = "sha256:881eea0c8cd7e04d6a7dc1b57bc7c18889b86e1ae9a7af6b1bd0d026581da75b"
    "linux_arm64"   = "sha256:881eea0c8cd7e04d6a7dc1b57bc7c18889b86e1ae9a7af6b1bd0d026581da75b"
    "windows_amd64" = "sha256:881eea0c8cd7e04d6a7dc1b57bc7c18889b86e1ae9a7af6b1bd0d026581da75b"
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
  resolved_at = "2026-12-03T04:05:00Z"
  checksums = {
    "darwin_amd64"  = "sha256:af45e1ba54820720efaaec84a6b1f18d722f67dd61252a317f05ed26027ed295"
    "darwin_arm64"  = "sha256:af45e1ba54820720efaaec84a6b1f18d722f67dd61252a317f05ed26027ed295"
    "linux_amd64"   = "sha256:af45e1ba54820720efaaec84a6b1f18d722f67dd61252a317f05ed26027ed295"
    "linux_arm64"   = "sha256:af45e1ba54820720efaaec84a6b1f18d722f67dd61252a317f05ed26027ed295"
    "windows_amd64" = "sha256:af45e1ba54820720efaaec84a6b1f18d722f67dd61252a317f05ed26027ed295"
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
