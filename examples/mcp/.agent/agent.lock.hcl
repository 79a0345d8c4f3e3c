# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "files" {
  source      = "builtin/mcp"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:38:25Z"
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

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:38:25Z"
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
