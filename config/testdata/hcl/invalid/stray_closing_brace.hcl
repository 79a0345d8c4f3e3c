settings {
  log_level = "info"
}
} # ERROR: Argument or block definition required

hook "post-apply" {
  provider = "journal"
  mode     = "observe"
}
