# A forge provider replaced by a local build through the global config's
# dev_overrides: no lock entry, no version check, one warning.
required_providers {
  kv = { source = "github.com/acme/provider-kv", version = "~> 2.0" }
}

provider "kv" {
  endpoint = "http://localhost:8080"
  tls = {
    server_name = "localhost"
    verify      = false
  }
  allow_env  = ["KV_REGION"]
  allow_read = ["./data"]
  allow_net  = ["kv.example:443"]
}
