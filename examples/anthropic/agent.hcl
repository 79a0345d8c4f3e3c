# Anthropic's Messages API through builtin/anthropic, with the filesystem
# tool confined to this directory. Set ANTHROPIC_API_KEY, then:
#   deno run -A main.ts run "Summarize README.md" --dir examples/anthropic
# The key is read from the environment at launch and reaches only the
# plugin; it is never written to the lock file, a log or an event.

required_providers {
  claude = { source = "builtin/anthropic", version = "~> 0.1" }
  fs     = { source = "builtin/filesystem", version = "~> 0.1" }
}

provider "claude" {
  api_key = env("ANTHROPIC_API_KEY")
  # The plugin's envelope names Anthropic's host and loopback (for a local
  # proxy or test server, set with base_url); the kernel launches a plugin
  # only when all of it is granted.
  allow_net = ["api.anthropic.com:443"]
}

provider "fs" {
  roots       = ["."]
  allow_read  = ["."]
  allow_write = ["."]
}

policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

policy "writes_need_approval" {
  match  = { provider = "fs", kind = "resource" }
  action = "ask"
}

agent_profile "default" {
  model {
    primary {
      provider = "claude"
      id       = "claude-sonnet-5-5"
    }
    # Taken when the primary stays overloaded after its retries.
    fallback {
      provider = "claude"
      id       = "claude-haiku-5-5"
    }
  }
  tools            = ["fs.*"]
  max_turns        = 20
  max_cost_usd     = 0.50
  max_wall_clock_s = 300
}
