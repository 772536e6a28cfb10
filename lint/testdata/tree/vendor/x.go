package x

const prompt = "{{ planted }} in vendor"
