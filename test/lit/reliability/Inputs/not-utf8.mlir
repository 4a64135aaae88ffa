func.func @main() {
  // café
  return
}
