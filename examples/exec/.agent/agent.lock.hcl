# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-03T04:04:55Z"
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

provider "sh" {
  source      = "builtin/exec"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:32:24Z"
  checksums = {
    "darwin_amd64"  = "sha256:ee567db85999d73a717c4a7f7d8f22e850274ca45617a0dc66cee4a66169cee4"
    "darwin_arm64"  = "sha256:ee567db85999d73a717c4a7f7d8f22e850274ca45617a0dc66cee4a66169cee4"
    "linux_amd64"   = "sha256:ee567db85999d73a717c4a7f7d8f22e850274ca45617a0dc66cee4a66169cee4"
    "linux_arm64"   = "sha256:ee567db85999d73a717c4a7f7d8f22e850274ca45617a0dc66cee4a66169cee4"
    "windows_amd64" = "sha256:ee567db85999d73a717c4a7f7d8f22e850274ca45617a0dc66cee4a66169cee4"
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
