required_providers {
  kv = { source = "../../_plugins/kv", version = "~> 1.4" }
}

provider "kv" {
  endpoint_url = "https://kv.example"
  timeout_s    = "soon"
  verbose      = "maybe"
  tags         = "a,b"
  ports        = [443, "http"]
  labels       = { team = ["platform"] }
  tls = {
    verify  = true
    servername = "kv.example"
  }
  token_budget = 100
  cache {
    size = 10
  }
  allow_env  = ["KV_REGION"]
  allow_read = ["./data"]
  allow_net  = ["kv.example:443"]
}
