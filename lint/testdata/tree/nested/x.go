package x

const prompt = "{{ planted }} in nested"
