required_providers {
  readme = { source = "../../_plugins/ctx", version = "0.3.0" }
}

provider "readme" {
  allow_read = ["."]
}
