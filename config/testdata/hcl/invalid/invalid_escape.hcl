provider "fs" {
  root    = "C:\Users\agent" # ERROR: Invalid escape sequence # ERROR: Invalid escape sequence
  unicode = "\u12" # ERROR: Invalid escape sequence
  range   = "\uD800" # ERROR: Invalid escape sequence
}
