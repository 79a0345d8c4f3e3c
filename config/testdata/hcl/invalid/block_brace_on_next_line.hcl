settings # ERROR: Argument or block definition required
{ # ERROR: Argument or block definition required
  log_level = "info"
}
