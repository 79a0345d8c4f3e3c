# An MCP server as a tool provider: the mcp bridge starts the reference
# "filesystem" MCP server under Deno, confined to this directory, and offers
# three of its tools with the prefix files_. A scripted model (it replays
# script.json, so no API key is needed) lists the directory, reads
# notes.md and writes SUMMARY.md — the write is asked for first.
#
# The server starts with an empty environment plus Deno's runtime settings
# (inherit_env's default: DENO_DIR, so that Deno finds its module cache, and
# the TLS, proxy and npm registry settings when they are set, so that it can
# download the package the first time) and with exactly the Deno permissions
# its arguments give it: this directory, and the one variable its glob
# library probes. It runs inside the bridge's OS sandbox, which shows it the
# paths the bridge is granted (allow_read, allow_write) and Deno's module
# cache read-only.

required_providers {
  scripted = { source = "builtin/scripted", version = "~> 0.1" }
  files    = { source = "builtin/mcp", version = "~> 0.1" }
}

provider "scripted" {
  script     = "./script.json"
  allow_read = ["."]
}

provider "files" {
  command = "deno"
  args = [
    "run", "--no-prompt",
    "--allow-read=.", "--allow-write=.",
    "--allow-env=__MINIMATCH_TESTING_PLATFORM__",
    "npm:@modelcontextprotocol/server-filesystem@2026.8.31", ".",
  ]
  tools                = ["list_directory", "read_text_file", "write_file"]
  tool_prefix          = "files_"
  call_timeout_seconds = 30
  allow_run            = ["deno"]
  # The server runs inside the bridge's OS sandbox, which shows only what
  # the bridge is granted: this directory, as the server's own flags say.
  allow_read  = ["."]
  allow_write = ["."]
}

# Read-only MCP tools (readOnlyHint) are data sources and run freely; the
# others are resources (write_file is destructive: risk high), planned,
# shown and asked for.
policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

policy "mcp_writes_ask" {
  match  = { provider = "files", kind = "resource" }
  action = "ask"
}

agent_profile "default" {
  model {
    primary {
      provider = "scripted"
      id       = "scripted"
    }
  }
  tools            = ["files.*"]
  max_turns        = 6
  max_wall_clock_s = 120
}
