provider "shell" {
  newline   = "line one\nline two"
  tab       = "a\tb"
  quote     = "say \"hi\""
  backslash = "C:\\Users\\agent"
  unicode   = "\u00e9\u4e2d\U0001F680"
  cr        = "a\rb"
  dollar    = "cost: $5, literal $${HOME} and 100%"
  percent   = "progress %%{done} 50%"
  lone      = "$ and % alone"
}
