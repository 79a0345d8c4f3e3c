# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T06:17:03Z"
  checksums = {
    "darwin_amd64"  = "sha256:ca46694268e4b13d89089c56b08c616ef812ca43057ca4912aa3e835a8a59a87"
    "darwin_arm64"  = "sha256:ca46694268e4b13d89089c56b08c616ef812ca43057ca4912aa3e835a8a59a87"
    "linux_amd64"   = "sha256:ca46694268e4b13d89089c56b08c616ef812ca43057ca4912aa3e835a8a59a87"
    "linux_arm64"   = "sha256:ca46694268e4b13d89089c56b08c616ef812ca43057ca4912aa3e835a8a59a87"
    "windows_amd64" = "sha256:ca46694268e4b13d89089c56b08c616ef812ca43057ca4912aa3e835a8a59a87"
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
  resolved_at = "2026-12-02T06:17:03Z"
  checksums = {
    "darwin_amd64"  = "sha256:b4206bb46dd1579cffbcf4c251441fb6b866af55be7707498a176a4fb16d1109"
    "darwin_arm64"  = "sha256:b4206bb46dd1579cffbcf4c251441fb6b866af55be7707498a176a4fb16d1109"
    "linux_amd64"   = "sha256:b4206bb46dd1579cffbcf4c251441fb6b866af55be7707498a176a4fb16d1109"
    "linux_arm64"   = "sha256:b4206bb46dd1579cffbcf4c251441fb6b866af55be7707498a176a4fb16d1109"
    "windows_amd64" = "sha256:b4206bb46dd1579cffbcf4c251441fb6b866af55be7707498a176a4fb16d1109"
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
  resolved_at = "2026-12-02T06:17:03Z"
  checksums = {
    "darwin_amd64"  = "sha256:67809aa4cb87218579ebbf352df26d6b6b041bf4ce583d211172efe68485c139"
    "darwin_arm64"  = "sha256:67809aa4cb87218579ebbf352df26d6b6b041bf4ce583d211172efe68485c139"
    "linux_amd64"   = "sha256:67809aa4cb87218579ebbf352df26d6b6b041bf4ce583d211172efe68485c139"
    "linux_arm64"   = "sha256:67809aa4cb87218579ebbf352df26d6b6b041bf4ce583d211172efe68485c139"
    "windows_amd64" = "sha256:67809aa4cb87218579ebbf352df26d6b6b041bf4ce583d211172efe68485c139"
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
