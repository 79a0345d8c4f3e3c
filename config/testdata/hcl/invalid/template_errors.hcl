provider "claude" {
  a = "${1 + }" # ERROR: Invalid expression
  b = "%{ if true }no endif" # ERROR: Unexpected end of template
  c = "%{ endfor }" # ERROR: Unexpected endfor directive
  d = "%{ fi true }x%{ endif }" # ERROR: Invalid template control keyword # ERROR: Unexpected endif directive
  e = "${x:y}" # ERROR: Extra characters after interpolation expression
}
