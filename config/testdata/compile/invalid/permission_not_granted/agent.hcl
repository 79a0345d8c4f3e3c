required_providers {
  kv = { source = "../../_plugins/kv", version = "~> 1.4" }
}

provider "kv" {
  endpoint = "https://kv.example"
  tls = {
    server_name = "kv.example"
  }
  allow_env  = ["KV_ZONE"]
  allow_read = ["./data/public"]
  allow_net  = ["*.example.org", "kv.example:80"]
  allow_run  = ["git", ""]
}
