package x

const prompt = "{{ planted }} in .hidden"
