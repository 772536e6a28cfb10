package tree

const ok = "fine"
