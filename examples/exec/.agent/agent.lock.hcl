# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:51:02Z"
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

provider "sh" {
  source      = "builtin/exec"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:51:02Z"
  checksums = {
    "darwin_amd64"  = "sha256:da70748346c7806cc5d337eeb5e9119dca65321cb8f3e5e6b81cd0636b2d49ca"
    "darwin_arm64"  = "sha256:da70748346c7806cc5d337eeb5e9119dca65321cb8f3e5e6b81cd0636b2d49ca"
    "linux_amd64"   = "sha256:da70748346c7806cc5d337eeb5e9119dca65321cb8f3e5e6b81cd0636b2d49ca"
    "linux_arm64"   = "sha256:da70748346c7806cc5d337eeb5e9119dca65321cb8f3e5e6b81cd0636b2d49ca"
    "windows_amd64" = "sha256:da70748346c7806cc5d337eeb5e9119dca65321cb8f3e5e6b81cd0636b2d49ca"
  }
  envelope = {
    env   = []
    run   = ["bash"]
    read  = ["."]
    write = ["*"]
    net   = []
  }
  config_schema = [
    {
      name        = "roots"
      type        = "list(string)"
      required    = true
      sensitive   = false
      description = "Directories a command may run in: absolute, or relative to the kernel's working directory. A call whose working directory is outside every root (after resolving symbolic links) is refused."
    },
    {
      name         = "env"
      type         = "map(string)"
      required     = false
      sensitive    = false
      description  = "Variables set for every command, besides PATH (the plugin's own). Commands get no other variable of the kernel or the plugin."
      default_json = "{}"
    },
    {
      name         = "default_timeout_s"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "Seconds a command may run when the call sets no timeout_s."
      default_json = "120"
    },
    {
      name         = "max_timeout_s"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "The largest timeout_s a call may ask for (at most 3600)."
      default_json = "600"
    },
    {
      name         = "max_output_bytes"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "Bytes of stdout and of stderr kept in a result (the first and last halves; the middle is cut with a marker). Streamed output is not cut below 4 MiB."
      default_json = "30000"
    },
  ]
  tools = [
    {
      name = "bash"
      kind = "resource"
      risk = "high"
    },
    {
      name = "bash_output"
      kind = "data_source"
      risk = "read_only"
    },
    {
      name = "bash_kill"
      kind = "resource"
      risk = "low"
    },
  ]
}
