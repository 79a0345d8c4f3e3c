hook "post-apply" {
  provider = "journal", # ERROR: Unexpected comma after argument
  mode     = "observe"
}
