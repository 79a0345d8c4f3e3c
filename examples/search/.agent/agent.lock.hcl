# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T08:27:26Z"
  checksums = {
    "darwin_amd64"  = "sha256:0f084b371cf4157edceeba7558a6faaa9ebf98ddf08316b4119aba10c9a9d7d8"
    "darwin_arm64"  = "sha256:0f084b371cf4157edceeba7558a6faaa9ebf98ddf08316b4119aba10c9a9d7d8"
    "linux_amd64"   = "sha256:0f084b371cf4157edceeba7558a6faaa9ebf98ddf08316b4119aba10c9a9d7d8"
    "linux_arm64"   = "sha256:0f084b371cf4157edceeba7558a6faaa9ebf98ddf08316b4119aba10c9a9d7d8"
    "windows_amd64" = "sha256:0f084b371cf4157edceeba7558a6faaa9ebf98ddf08316b4119aba10c9a9d7d8"
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
  resolved_at = "2026-12-02T08:27:26Z"
  checksums = {
    "darwin_amd64"  = "sha256:87857aae9d855e216cc45b784c7ecc90f22def64f128f1efb2971349314efa9b"
    "darwin_arm64"  = "sha256:87857aae9d855e216cc45b784c7ecc90f22def64f128f1efb2971349314efa9b"
    "linux_amd64"   = "sha256:87857aae9d855e216cc45b784c7ecc90f22def64f128f1efb2971349314efa9b"
    "linux_arm64"   = "sha256:87857aae9d855e216cc45b784c7ecc90f22def64f128f1efb2971349314efa9b"
    "windows_amd64" = "sha256:87857aae9d855e216cc45b784c7ecc90f22def64f128f1efb2971349314efa9b"
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
  resolved_at = "2026-12-02T08:27:26Z"
  checksums = {
    "darwin_amd64"  = "sha256:c5f91cf508e1192d1621b502655eebf949b7963e6f63e7cb1b5434d95aed99a0"
    "darwin_arm64"  = "sha256:c5f91cf508e1192d1621b502655eebf949b7963e6f63e7cb1b5434d95aed99a0"
    "linux_amd64"   = "sha256:c5f91cf508e1192d1621b502655eebf949b7963e6f63e7cb1b5434d95aed99a0"
    "linux_arm64"   = "sha256:c5f91cf508e1192d1621b502655eebf949b7963e6f63e7cb1b5434d95aed99a0"
    "windows_amd64" = "sha256:c5f91cf508e1192d1621b502655eebf949b7963e6f63e7cb1b5434d95aed99a0"
  }
  envelope = {
    env   = []
    run   = ["rg?"]
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
  accepted_widening = ["0.1.0 -> 0.1.0: envelope run adds \"rg?\""]
}
