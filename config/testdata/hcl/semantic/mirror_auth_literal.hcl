registry_mirror {
  default = "https://artifacts.corp.example/forge"

  mirror {
    prefix = "github.com/example-org/"
    url    = "https://artifacts.corp.example/example-org"
    auth   = "ghp_literaltoken" # ERROR: Invalid sensitive expression
  }

  mirror {
    prefix = "gitlab.com/"
    url    = "https://artifacts.corp.example/gitlab-${env("CORP_SUFFIX")}" # ERROR: Function calls not allowed
  }
}
