hook "session-start" {
  provider = "journal"
  mode     = "observe"
}

hook "pre-tool-call" {
  provider = "guard"
  mode     = "veto"
}

hook "post-model-response" {
  provider = "redactor"
  mode     = "transform"
}

# A bare identifier is also a valid label.
hook session-end {
  provider = "journal"
  mode     = "observe"
}
