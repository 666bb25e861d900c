// The run length of edt_chunks' summaries and their empty value.
const uint EDT_CHUNK = 32;
const uint NONE = 0xFFFFFFFFu;
