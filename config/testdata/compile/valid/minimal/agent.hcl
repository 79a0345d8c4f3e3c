# Nothing but settings: no provider, so no lock file is needed, and every
# other setting takes its default.
settings {
  log_level = "fatal"
}
