required_providers {
  fs = {
    source # ERROR: Missing attribute value
    version = "~> 0.9"
  }
  grep = # ERROR: Invalid expression
}
