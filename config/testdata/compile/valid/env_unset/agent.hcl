# check-config needs no secrets: each env() variable below is unset, which
# is a warning naming the variable and the attribute (the agent needs them
# when it runs). invalid/env_unset is the same check with --require-env.
required_providers {
  kv = { source = "../../_plugins/kv", version = "~> 1.4" }
}

provider "kv" {
  endpoint = env("KV_ENDPOINT_NOT_SET")
  token    = env("KV_TOKEN_NOT_SET")
  tls = {
    server_name = "kv.example"
    client_key  = env("KV_CLIENT_KEY_NOT_SET")
  }
  allow_env  = ["KV_REGION"]
  allow_read = ["./data"]
  allow_net  = ["kv.example:443"]
}
