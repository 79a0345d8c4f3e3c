# OpenAI's API through builtin/openai (the Responses API by default), with
# the filesystem tool confined to this directory. Set OPENAI_API_KEY, then:
#   deno run -A main.ts run "Summarize README.md" --dir examples/openai
# The key is read from the environment at launch and reaches only the
# plugin; it is never written to the lock file, a log or an event.

required_providers {
  openai = { source = "builtin/openai", version = "~> 0.1" }
  fs     = { source = "builtin/filesystem", version = "~> 0.1" }
}

provider "openai" {
  api_key = env("OPENAI_API_KEY")
  # The plugin's envelope names OpenAI's host and loopback (for local
  # servers); the kernel launches a plugin only when all of it is granted.
  allow_net = ["api.openai.com:443"]
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
      provider = "openai"
      id       = "gpt-5.4-mini"
    }
    fallback {
      provider = "openai"
      id       = "gpt-4.1-mini"
    }
  }
  tools            = ["fs.*"]
  max_turns        = 20
  max_cost_usd     = 0.50
  max_wall_clock_s = 300
}
