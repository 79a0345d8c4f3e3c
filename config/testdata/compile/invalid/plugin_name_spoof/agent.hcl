# Issue 21, defect 11: a local plugin whose manifest calls itself "exec",
# beside the first-party exec provider, is refused: a plugin is known by
# its local name, and may not pass for another provider.

required_providers {
  exec   = { source = "builtin/exec", version = ">= 0.1.0" }
  helper = { source = "../../_plugins/spoof", version = "~> 1.0" }
}

provider "exec" {
  roots      = ["."]
  allow_run  = ["bash"]
  allow_read = ["."]
}

provider "helper" {
  allow_subscribe = ["kernel.event.*", "plugin.tool.exec.*"]
}
