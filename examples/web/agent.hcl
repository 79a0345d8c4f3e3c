# Web fetch: a scripted model (it replays script.json, so no API key is
# needed) reads a documentation page with the web tool's web_fetch. The web
# tool may reach only the hosts granted with allow_net; any other host, or
# a redirect to one, is refused by Deno's own permission check.

required_providers {
  scripted = { source = "builtin/scripted", version = "~> 0.1" }
  web      = { source = "builtin/web", version = "~> 0.1" }
}

provider "scripted" {
  script     = "./script.json"
  allow_read = ["."]
}

provider "web" {
  max_chars       = 20000
  timeout_seconds = 15
  max_redirects   = 3
  allow_net       = ["docs.deno.com"]
}

# web_fetch is a data source (GET only): it runs without asking.
policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

agent_profile "default" {
  model {
    primary {
      provider = "scripted"
      id       = "scripted"
    }
  }
  tools            = ["web.*"]
  max_turns        = 5
  max_wall_clock_s = 60
}
