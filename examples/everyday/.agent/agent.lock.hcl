# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "ask" {
  source      = "builtin/user"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:33:38Z"
  checksums = {
    "darwin_amd64"  = "sha256:71ac44bdf088fe3d5bcd4f0b9dc31260f9f4ae86f6016b0eb16da28e3d42ca63"
    "darwin_arm64"  = "sha256:71ac44bdf088fe3d5bcd4f0b9dc31260f9f4ae86f6016b0eb16da28e3d42ca63"
    "linux_amd64"   = "sha256:71ac44bdf088fe3d5bcd4f0b9dc31260f9f4ae86f6016b0eb16da28e3d42ca63"
    "linux_arm64"   = "sha256:71ac44bdf088fe3d5bcd4f0b9dc31260f9f4ae86f6016b0eb16da28e3d42ca63"
    "windows_amd64" = "sha256:71ac44bdf088fe3d5bcd4f0b9dc31260f9f4ae86f6016b0eb16da28e3d42ca63"
  }
  envelope = {
    env   = []
    run   = []
    read  = []
    write = []
    net   = []
  }
  config_schema = []
}

provider "docs" {
  source      = "builtin/agents-md"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:33:38Z"
  checksums = {
    "darwin_amd64"  = "sha256:8fea20b259fd5569c6dc3a672ea6d71a3777a5e0c0e3d08ea442cda30388657d"
    "darwin_arm64"  = "sha256:8fea20b259fd5569c6dc3a672ea6d71a3777a5e0c0e3d08ea442cda30388657d"
    "linux_amd64"   = "sha256:8fea20b259fd5569c6dc3a672ea6d71a3777a5e0c0e3d08ea442cda30388657d"
    "linux_arm64"   = "sha256:8fea20b259fd5569c6dc3a672ea6d71a3777a5e0c0e3d08ea442cda30388657d"
    "windows_amd64" = "sha256:8fea20b259fd5569c6dc3a672ea6d71a3777a5e0c0e3d08ea442cda30388657d"
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
      name         = "file_names"
      type         = "list(string)"
      required     = false
      sensitive    = false
      description  = "The instruction files read in each directory, in this order (plain names, no directories)."
      default_json = "[\"AGENTS.md\",\"CLAUDE.md\",\"GEMINI.md\"]"
    },
    {
      name        = "root"
      type        = "string"
      required    = false
      sensitive   = false
      description = "The directory the chain starts at: absolute, or relative to the kernel's working directory. Default: the nearest ancestor of the session's working directory holding .git (else the working directory). Configure fails if it does not exist."
    },
    {
      name         = "token_budget"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "The provider's cap of tokens per model call (the kernel's; default 8000)."
      default_json = "8000"
    },
  ]
}

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:33:38Z"
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

provider "graph" {
  source      = "builtin/mcp"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:33:38Z"
  checksums = {
    "darwin_amd64"  = "sha256:fc2b136a261b352be44ee8a0f8ec0b7627d50b78d2f24a95119cd1a3ce7e9f33"
    "darwin_arm64"  = "sha256:fc2b136a261b352be44ee8a0f8ec0b7627d50b78d2f24a95119cd1a3ce7e9f33"
    "linux_amd64"   = "sha256:fc2b136a261b352be44ee8a0f8ec0b7627d50b78d2f24a95119cd1a3ce7e9f33"
    "linux_arm64"   = "sha256:fc2b136a261b352be44ee8a0f8ec0b7627d50b78d2f24a95119cd1a3ce7e9f33"
    "windows_amd64" = "sha256:fc2b136a261b352be44ee8a0f8ec0b7627d50b78d2f24a95119cd1a3ce7e9f33"
  }
  envelope = {
    env   = []
    run   = ["*"]
    read  = []
    write = []
    net   = ["*"]
  }
  config_schema = [
    {
      name        = "command"
      type        = "string"
      required    = false
      sensitive   = false
      description = "A stdio MCP server: the program to start (set command or url, not both)."
    },
    {
      name         = "args"
      type         = "list(string)"
      required     = false
      sensitive    = false
      description  = "The stdio server's arguments."
      default_json = "[]"
    },
    {
      name         = "env"
      type         = "map(string)"
      required     = false
      sensitive    = false
      description  = "Variables set for the stdio server (values may use env(\"NAME\")). The server starts with an empty environment plus inherit_env and these."
      default_json = "{}"
    },
    {
      name         = "inherit_env"
      type         = "list(string)"
      required     = false
      sensitive    = false
      description  = "Variables copied from the plugin's own environment into the stdio server's, when set (each must be readable by the plugin). Setting it replaces the default: Deno's runtime settings, which the kernel gives every Deno plugin, so that a Deno-run server finds the module cache and reaches the npm registry through the same TLS roots and proxy."
      default_json = "[\"DENO_DIR\",\"DENO_CERT\",\"DENO_TLS_CA_STORE\",\"NODE_EXTRA_CA_CERTS\",\"HTTPS_PROXY\",\"HTTP_PROXY\",\"ALL_PROXY\",\"NO_PROXY\",\"NPM_CONFIG_REGISTRY\"]"
    },
    {
      name        = "cwd"
      type        = "string"
      required    = false
      sensitive   = false
      description = "The stdio server's working directory (relative paths resolve against the kernel's working directory). Default: the kernel's working directory."
    },
    {
      name        = "url"
      type        = "string"
      required    = false
      sensitive   = false
      description = "A streamable-HTTP MCP server: its endpoint URL (set command or url, not both)."
    },
    {
      name         = "headers"
      type         = "map(string)"
      required     = false
      sensitive    = false
      description  = "HTTP headers sent to the url server."
      default_json = "{}"
    },
    {
      name        = "bearer_token"
      type        = "string"
      required    = false
      sensitive   = true
      description = "Sent to the url server as Authorization: Bearer <token>. Only env(\"NAME\") may set it."
    },
    {
      name         = "tool_prefix"
      type         = "string"
      required     = false
      sensitive    = false
      description  = "Put before every tool name the model sees, e.g. \"memory_\"."
      default_json = "\"\""
    },
    {
      name        = "tools"
      type        = "list(string)"
      required    = false
      sensitive   = false
      description = "The server's tools to expose, by their MCP names. Default: all of them."
    },
    {
      name         = "trust_annotations"
      type         = "bool"
      required     = false
      sensitive    = false
      description  = "Map the server's annotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint) to kind and risk. false: every tool is resource / high."
      default_json = "true"
    },
    {
      name         = "connect_timeout_seconds"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "Deadline for starting or reaching the server and listing its tools."
      default_json = "30"
    },
    {
      name         = "call_timeout_seconds"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "Deadline of one tool call."
      default_json = "60"
    },
    {
      name         = "max_result_chars"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "Most characters of text and base64 data in one result; the rest is cut with a marker."
      default_json = "100000"
    },
  ]
}

provider "memory" {
  source      = "builtin/memory"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:33:38Z"
  checksums = {
    "darwin_amd64"  = "sha256:aa8c7a06fdc308d746af7584b305009566b123d684fb984d09728366649c7919"
    "darwin_arm64"  = "sha256:aa8c7a06fdc308d746af7584b305009566b123d684fb984d09728366649c7919"
    "linux_amd64"   = "sha256:aa8c7a06fdc308d746af7584b305009566b123d684fb984d09728366649c7919"
    "linux_arm64"   = "sha256:aa8c7a06fdc308d746af7584b305009566b123d684fb984d09728366649c7919"
    "windows_amd64" = "sha256:aa8c7a06fdc308d746af7584b305009566b123d684fb984d09728366649c7919"
  }
  envelope = {
    env   = ["HOME", "XDG_DATA_HOME"]
    run   = []
    read  = ["*"]
    write = ["*"]
    net   = []
  }
  config_schema = [
    {
      name         = "path"
      type         = "string"
      required     = false
      sensitive    = false
      description  = "The SQLite file holding the memories: absolute, relative to the kernel's working directory, or starting with ~, $HOME or $XDG_DATA_HOME. Default: $XDG_DATA_HOME/agent/memory.sqlite (~/.local/share/agent/memory.sqlite when XDG_DATA_HOME is unset). Its directory is created if missing. The plugin reads and writes exactly the paths its provider block grants (allow_read and allow_write), so grant the file's directory, e.g. \"$XDG_DATA_HOME/agent\"."
      default_json = "\"$XDG_DATA_HOME/agent/memory.sqlite\""
    },
    {
      name         = "review_writes"
      type         = "bool"
      required     = false
      sensitive    = false
      description  = "New records are PENDING until ApproveRecord (ratification); pending records are never recalled."
      default_json = "false"
    },
    {
      name         = "session_summaries"
      type         = "bool"
      required     = false
      sensitive    = false
      description  = "At session-end, record a completed session's last response as a project memory titled \"Outcome of session <id>\"."
      default_json = "false"
    },
    {
      name         = "max_records"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "Most records one Recall returns."
      default_json = "20"
    },
    {
      name         = "token_budget"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "The provider's cap of recalled tokens per model call (the kernel's; default 2000)."
      default_json = "2000"
    },
  ]
}

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:33:38Z"
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
  resolved_at = "2026-12-02T02:33:38Z"
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

provider "sh" {
  source      = "builtin/exec"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:33:38Z"
  checksums = {
    "darwin_amd64"  = "sha256:4d22a09fefa11afd9103eaf223539b3f2e556eef8655470af3399478285a0112"
    "darwin_arm64"  = "sha256:4d22a09fefa11afd9103eaf223539b3f2e556eef8655470af3399478285a0112"
    "linux_amd64"   = "sha256:4d22a09fefa11afd9103eaf223539b3f2e556eef8655470af3399478285a0112"
    "linux_arm64"   = "sha256:4d22a09fefa11afd9103eaf223539b3f2e556eef8655470af3399478285a0112"
    "windows_amd64" = "sha256:4d22a09fefa11afd9103eaf223539b3f2e556eef8655470af3399478285a0112"
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
}

provider "tasks" {
  source      = "builtin/task"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:33:38Z"
  checksums = {
    "darwin_amd64"  = "sha256:6cc48620357350ca24d0492a8fa5239d47be47075387d7f81fb982a102b08122"
    "darwin_arm64"  = "sha256:6cc48620357350ca24d0492a8fa5239d47be47075387d7f81fb982a102b08122"
    "linux_amd64"   = "sha256:6cc48620357350ca24d0492a8fa5239d47be47075387d7f81fb982a102b08122"
    "linux_arm64"   = "sha256:6cc48620357350ca24d0492a8fa5239d47be47075387d7f81fb982a102b08122"
    "windows_amd64" = "sha256:6cc48620357350ca24d0492a8fa5239d47be47075387d7f81fb982a102b08122"
  }
  envelope = {
    env   = []
    run   = []
    read  = []
    write = []
    net   = []
  }
  config_schema = []
}

provider "web" {
  source      = "builtin/web"
  version     = "0.1.0"
  resolved_at = "2026-12-02T02:33:38Z"
  checksums = {
    "darwin_amd64"  = "sha256:1e432ee029d026dbc1568c893e68db39ae2dabf12062aab315673ead071a1cec"
    "darwin_arm64"  = "sha256:1e432ee029d026dbc1568c893e68db39ae2dabf12062aab315673ead071a1cec"
    "linux_amd64"   = "sha256:1e432ee029d026dbc1568c893e68db39ae2dabf12062aab315673ead071a1cec"
    "linux_arm64"   = "sha256:1e432ee029d026dbc1568c893e68db39ae2dabf12062aab315673ead071a1cec"
    "windows_amd64" = "sha256:1e432ee029d026dbc1568c893e68db39ae2dabf12062aab315673ead071a1cec"
  }
  envelope = {
    env   = []
    run   = []
    read  = []
    write = []
    net   = ["*"]
  }
  config_schema = [
    {
      name         = "max_bytes"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "Most bytes of a response body downloaded (streamed; the rest is not read)."
      default_json = "2097152"
    },
    {
      name         = "max_chars"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "Most characters of converted output returned; a call's max_chars may ask for fewer."
      default_json = "100000"
    },
    {
      name         = "timeout_seconds"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "Deadline of one fetch, redirects included."
      default_json = "30"
    },
    {
      name         = "max_redirects"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "Most redirects followed; every hop's host must be granted with allow_net."
      default_json = "5"
    },
    {
      name         = "user_agent"
      type         = "string"
      required     = false
      sensitive    = false
      description  = "The User-Agent header sent."
      default_json = "\"ph-agent-web_fetch/0.1\""
    },
  ]
}
