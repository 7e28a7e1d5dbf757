// Included through --include=inc (depfile.test).
#define RECORD_WORDS 1024
