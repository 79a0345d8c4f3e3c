required_providers {
  kv = { source = "../../_plugins/kv", version = "~> 1.4" }
}

provider "kv" {
  endpoint = "https://kv.example"
  tls = {
    server_name = "kv.example"
  }
  allow_env  = ["KV_REGION"]
  allow_read = ["./data"]
  allow_net  = ["kv.example:443"]
}

provider "kvv" {
}

agent_profile "default" {
  model {
    primary {
      provider = "claud"
      id       = "model-large-2"
    }
  }
  tools = ["kv.gett", "kv.put", "fs.*", "kv", "kv.", "*.read"]
}

hook "post-apply" {
  provider = "journal"
  mode     = "observe"
}
