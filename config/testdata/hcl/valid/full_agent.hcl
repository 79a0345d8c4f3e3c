# A complete agent.hcl: every top-level block type, as a team would write it.

required_providers {
  claude = {
    source  = "github.com/example-org/provider-claude"
    version = ">= 2.1.0, < 3.0.0"
  }
  fs      = { source = "gitlab.com/tools-team/provider-fs", version = "~> 0.9" }
  grep    = { source = "github.com/example-org/provider-grep", version = "0.4.2" }
  journal = { source = "github.com/example-org/provider-journal", version = "~> 1.0" }
  web     = { source = "github.com/example-org/provider-web", version = "= 1.3.0" }
}

provider "claude" {
  api_key  = env("CLAUDE_API_KEY") # sensitive in the plugin's schema
  base_url = "https://llm.internal.example"
}

provider "fs" {
  roots = [".", "../shared-docs"]
}

provider "grep" {}

policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

policy "fs_writes_need_approval" {
  match  = { provider = "fs", kind = "resource" }
  action = "ask"
}

policy "never_delete" {
  match  = { tool_name = "delete_tree" }
  action = "deny"
}

agent_profile "default" {
  model {
    primary {
      provider = "claude"
      id       = "model-large-2"
    }
    fallback {
      provider = "claude"
      id       = "model-medium-2"
    }
  }
  tools            = ["fs.*", "grep.search", "subagents.spawn"]
  max_turns        = 120
  max_cost_usd     = 2.50
  max_wall_clock_s = 1800
  max_depth        = 2
}

agent_profile "auditor" {
  model {
    primary {
      provider = "claude"
      id       = "model-small-1"
    }
  }
  tools          = ["fs.read_file", "grep.*"]
  slash_commands = ["summarize"]
  max_turns      = 25
}

hook "post-apply" {
  provider = "journal"
  mode     = "observe"
}

settings {
  default_frontend = "web"
  log_level        = "info"
  telemetry        = false
}
