dev_overrides {
  kv = "../../_plugins/kv"
}

registry_mirror {
  default = "https://artifacts.corp.example/forge"

  mirror {
    prefix = "github.com/acme/"
    url    = "https://artifacts.corp.example/acme"
    auth   = env("CORP_ARTIFACTS_TOKEN")
  }

  mirror {
    prefix = "gitlab.com/"
    url    = "https://artifacts.corp.example/gitlab"
  }
}
