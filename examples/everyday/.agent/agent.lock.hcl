# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "ask" {
  source      = "builtin/user"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:51:01Z"
  checksums = {
    "darwin_amd64"  = "sha256:ac58025877eec4c51945b7b01ea8409e17f1771c4e5dbf7162dd23b7117f6e35"
    "darwin_arm64"  = "sha256:ac58025877eec4c51945b7b01ea8409e17f1771c4e5dbf7162dd23b7117f6e35"
    "linux_amd64"   = "sha256:ac58025877eec4c51945b7b01ea8409e17f1771c4e5dbf7162dd23b7117f6e35"
    "linux_arm64"   = "sha256:ac58025877eec4c51945b7b01ea8409e17f1771c4e5dbf7162dd23b7117f6e35"
    "windows_amd64" = "sha256:ac58025877eec4c51945b7b01ea8409e17f1771c4e5dbf7162dd23b7117f6e35"
  }
  envelope = {
    env   = []
    run   = []
    read  = []
    write = []
    net   = []
  }
  config_schema = []
  tools = [
    {
      name = "ask_user"
      kind = "interactive"
      risk = "read_only"
    },
  ]
}

provider "docs" {
  source      = "builtin/agents-md"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:51:01Z"
  checksums = {
    "darwin_amd64"  = "sha256:427f09f838698493cf9b02aaec72e9e965098174a56a6812a502cff72bbda7c7"
    "darwin_arm64"  = "sha256:427f09f838698493cf9b02aaec72e9e965098174a56a6812a502cff72bbda7c7"
    "linux_amd64"   = "sha256:427f09f838698493cf9b02aaec72e9e965098174a56a6812a502cff72bbda7c7"
    "linux_arm64"   = "sha256:427f09f838698493cf9b02aaec72e9e965098174a56a6812a502cff72bbda7c7"
    "windows_amd64" = "sha256:427f09f838698493cf9b02aaec72e9e965098174a56a6812a502cff72bbda7c7"
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
  resolved_at = "2026-12-03T08:51:01Z"
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

provider "graph" {
  source      = "builtin/mcp"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:51:01Z"
  checksums = {
    "darwin_amd64"  = "sha256:5ae94ee1c1ca574763807e4abdc5867911358f621c9a45d0c45879a2012f8403"
    "darwin_arm64"  = "sha256:5ae94ee1c1ca574763807e4abdc5867911358f621c9a45d0c45879a2012f8403"
    "linux_amd64"   = "sha256:5ae94ee1c1ca574763807e4abdc5867911358f621c9a45d0c45879a2012f8403"
    "linux_arm64"   = "sha256:5ae94ee1c1ca574763807e4abdc5867911358f621c9a45d0c45879a2012f8403"
    "windows_amd64" = "sha256:5ae94ee1c1ca574763807e4abdc5867911358f621c9a45d0c45879a2012f8403"
  }
  envelope = {
    env   = []
    run   = ["*"]
    read  = ["*"]
    write = ["*"]
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
  resolved_at = "2026-12-03T08:51:01Z"
  checksums = {
    "darwin_amd64"  = "sha256:fd2b025f47133af6c1f41e6cdffc430d7a8c9832079cb80479280f7316a869a0"
    "darwin_arm64"  = "sha256:fd2b025f47133af6c1f41e6cdffc430d7a8c9832079cb80479280f7316a869a0"
    "linux_amd64"   = "sha256:fd2b025f47133af6c1f41e6cdffc430d7a8c9832079cb80479280f7316a869a0"
    "linux_arm64"   = "sha256:fd2b025f47133af6c1f41e6cdffc430d7a8c9832079cb80479280f7316a869a0"
    "windows_amd64" = "sha256:fd2b025f47133af6c1f41e6cdffc430d7a8c9832079cb80479280f7316a869a0"
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
  tools = [
    {
      name = "remember"
      kind = "resource"
      risk = "low"
    },
    {
      name = "forget"
      kind = "resource"
      risk = "moderate"
    },
    {
      name = "search"
      kind = "data_source"
      risk = "read_only"
    },
  ]
}

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:51:01Z"
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

provider "search" {
  source      = "builtin/search"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:51:01Z"
  checksums = {
    "darwin_amd64"  = "sha256:826372f037418c13d6fca9e1347dcdf02dbc03fb239dec1348e3c1adda92da6b"
    "darwin_arm64"  = "sha256:826372f037418c13d6fca9e1347dcdf02dbc03fb239dec1348e3c1adda92da6b"
    "linux_amd64"   = "sha256:826372f037418c13d6fca9e1347dcdf02dbc03fb239dec1348e3c1adda92da6b"
    "linux_arm64"   = "sha256:826372f037418c13d6fca9e1347dcdf02dbc03fb239dec1348e3c1adda92da6b"
    "windows_amd64" = "sha256:826372f037418c13d6fca9e1347dcdf02dbc03fb239dec1348e3c1adda92da6b"
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
}

provider "sh" {
  source      = "builtin/exec"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:51:01Z"
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

provider "tasks" {
  source      = "builtin/task"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:51:01Z"
  checksums = {
    "darwin_amd64"  = "sha256:7fddd58521459dadc805a81f7f92176145010fb61a31b656abccf6062016f907"
    "darwin_arm64"  = "sha256:7fddd58521459dadc805a81f7f92176145010fb61a31b656abccf6062016f907"
    "linux_amd64"   = "sha256:7fddd58521459dadc805a81f7f92176145010fb61a31b656abccf6062016f907"
    "linux_arm64"   = "sha256:7fddd58521459dadc805a81f7f92176145010fb61a31b656abccf6062016f907"
    "windows_amd64" = "sha256:7fddd58521459dadc805a81f7f92176145010fb61a31b656abccf6062016f907"
  }
  envelope = {
    env   = []
    run   = []
    read  = []
    write = []
    net   = []
  }
  config_schema = []
  tools = [
    {
      name = "task_create"
      kind = "resource"
      risk = "low"
    },
    {
      name = "task_update"
      kind = "resource"
      risk = "low"
    },
    {
      name = "task_list"
      kind = "data_source"
      risk = "read_only"
    },
  ]
}

provider "web" {
  source      = "builtin/web"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:51:01Z"
  checksums = {
    "darwin_amd64"  = "sha256:d82a63d3b0dc30bd266202aadb5a26c41b8195a473f4dc1366a647b37ba82153"
    "darwin_arm64"  = "sha256:d82a63d3b0dc30bd266202aadb5a26c41b8195a473f4dc1366a647b37ba82153"
    "linux_amd64"   = "sha256:d82a63d3b0dc30bd266202aadb5a26c41b8195a473f4dc1366a647b37ba82153"
    "linux_arm64"   = "sha256:d82a63d3b0dc30bd266202aadb5a26c41b8195a473f4dc1366a647b37ba82153"
    "windows_amd64" = "sha256:d82a63d3b0dc30bd266202aadb5a26c41b8195a473f4dc1366a647b37ba82153"
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
  tools = [
    {
      name = "web_fetch"
      kind = "data_source"
      risk = "read_only"
    },
  ]
}
