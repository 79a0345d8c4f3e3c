# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T08:03:29Z"
  checksums = {
    "darwin_amd64"  = "sha256:22d3c1cbc997cfc940d82eb85b0aaca2c1c0f8ee18a934fdc0973ae4086af69f"
    "darwin_arm64"  = "sha256:22d3c1cbc997cfc940d82eb85b0aaca2c1c0f8ee18a934fdc0973ae4086af69f"
    "linux_amd64"   = "sha256:22d3c1cbc997cfc940d82eb85b0aaca2c1c0f8ee18a934fdc0973ae4086af69f"
    "linux_arm64"   = "sha256:22d3c1cbc997cfc940d82eb85b0aaca2c1c0f8ee18a934fdc0973ae4086af69f"
    "windows_amd64" = "sha256:22d3c1cbc997cfc940d82eb85b0aaca2c1c0f8ee18a934fdc0973ae4086af69f"
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
  resolved_at = "2026-12-02T08:03:29Z"
  checksums = {
    "darwin_amd64"  = "sha256:58e18624951e040848f1b6de303a800e07abcfe9dd8b81b936cbc41209bd5195"
    "darwin_arm64"  = "sha256:58e18624951e040848f1b6de303a800e07abcfe9dd8b81b936cbc41209bd5195"
    "linux_amd64"   = "sha256:58e18624951e040848f1b6de303a800e07abcfe9dd8b81b936cbc41209bd5195"
    "linux_arm64"   = "sha256:58e18624951e040848f1b6de303a800e07abcfe9dd8b81b936cbc41209bd5195"
    "windows_amd64" = "sha256:58e18624951e040848f1b6de303a800e07abcfe9dd8b81b936cbc41209bd5195"
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
  resolved_at = "2026-12-02T08:03:29Z"
  checksums = {
    "darwin_amd64"  = "sha256:828bf084f657edc9cb2e4f84075a21a31cb153f1979d05b75d00c87a8cd263a4"
    "darwin_arm64"  = "sha256:828bf084f657edc9cb2e4f84075a21a31cb153f1979d05b75d00c87a8cd263a4"
    "linux_amd64"   = "sha256:828bf084f657edc9cb2e4f84075a21a31cb153f1979d05b75d00c87a8cd263a4"
    "linux_arm64"   = "sha256:828bf084f657edc9cb2e4f84075a21a31cb153f1979d05b75d00c87a8cd263a4"
    "windows_amd64" = "sha256:828bf084f657edc9cb2e4f84075a21a31cb153f1979d05b75d00c87a8cd263a4"
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
