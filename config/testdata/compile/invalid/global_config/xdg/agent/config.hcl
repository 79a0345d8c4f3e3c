provider "claude" {
  api_key = "sk-live-global-0000"
}

log_level = "debug"

dev_overrides {
  fs = env("FS_PATH")
}

registry_mirror {
  mirror {
    prefix = "github.com/acme/"
    url    = "https://mirror.example/acme"
    auth   = "hunter2-literal-token"
  }
  mirror {
    prefix = "gitlab.com/"
    url    = "https://mirror.example/gitlab"
    auth   = env("MIRROR_TOKEN_NOT_SET")
  }
}

registry_mirror {
  default = "https://other.example"
}
