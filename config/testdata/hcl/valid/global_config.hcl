# $XDG_CONFIG_HOME/agent/config.hcl

dev_overrides {
  fs        = "/home/me/src/provider-fs/bin/provider-fs"
  md-reader = "/home/me/src/provider-md/bin/provider-md"
}

registry_mirror {
  default = "https://artifacts.corp.example/forge"

  mirror {
    prefix = "github.com/example-org/"
    url    = "https://artifacts.corp.example/example-org"
    auth   = env("CORP_ARTIFACTS_TOKEN")
  }

  mirror {
    prefix = "gitlab.com/tools-team/"
    url    = "https://artifacts.corp.example/tools-team"
  }
}
