// Package tokens counts the tokens of a prompt exactly, offline, as the
// model's own tokenizer would: OpenAI's encodings (o200k_base, cl100k_base,
// p50k_base, p50k_edit, r50k_base) and open models' tokenizer.json files
// (Hugging Face tokenizers: Llama 3, Qwen 2/2.5/3, DeepSeek V3, Llama 2,
// Mistral…).
package tokens
