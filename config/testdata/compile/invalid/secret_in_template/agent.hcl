required_providers {
  kv = { source = "../../_plugins/kv", version = "~> 1.4" }
}

provider "kv" {
  endpoint = "https://kv.example"
  token    = "${env("KV_TOKEN")}"
  tls = {
    server_name = "kv.example"
    client_key  = "sk-live-0000-pasted-by-mistake"
  }
  allow_env  = ["KV_REGION"]
  allow_read = ["./data"]
  allow_net  = ["kv.example:443"]
}
