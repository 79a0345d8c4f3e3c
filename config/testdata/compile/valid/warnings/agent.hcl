# Valid, with warnings: an empty policy match, a grant the plugin does not
# declare, a bound of zero, a lock entry nothing requires, and a second .hcl
# file that is not read.
required_providers {
  readme = { source = "../../_plugins/ctx", version = "0.3.0" }
}

provider "readme" {
  allow_read = [".", "./secrets"]
  allow_run  = ["git"]
}

policy "everything_asks" {
  match  = {}
  action = "ask"
}

agent_profile "default" {
  tools                    = ["readme.*"]
  max_concurrent_subagents = 0
}
