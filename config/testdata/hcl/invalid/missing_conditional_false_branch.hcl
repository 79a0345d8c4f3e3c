settings {
  log_level = true ? "debug" # ERROR: Missing false expression in conditional
}
