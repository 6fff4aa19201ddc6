/**
 * @file Count tokens as llama.cpp does, in JavaScript, from the tokenizer a GGUF file carries.
 *
 * wllama has no tokenize call, so without this every count is a one-token completion: the model
 * reads the whole text to say how long it is, which on a small CPU model costs as much as reading
 * it for an answer (LongRAG's mapping of 20 chunks to their paragraphs took minutes on Alice).
 * A GGUF file holds its tokenizer (`tokenizer.ggml.*`: the vocabulary, the BPE merges, the
 * pre-tokenizer's name). This module reads those with @huggingface/gguf (the hub's own GGUF
 * reader) and builds the same tokenizer with @huggingface/tokenizers (the JS port of HF
 * tokenizers, which transformers.js uses), so a count costs microseconds.
 *
 * Only tokenizers whose recipe is known here are built: byte-level BPE ("gpt2" models) with a
 * pre-tokenizer named in `PRE_TOKENIZERS`. Any other model (a SentencePiece llama, an unknown
 * pre-tokenizer) gets null and keeps counting with the model itself. The counts are checked
 * against llama.cpp's own tokenizer (node-llama-cpp, the same file) in gguf-tokenizer.test.ts.
 */
import { gguf } from '@huggingface/gguf';
import { Tokenizer } from '@huggingface/tokenizers';

/** A token counter for plain text, with the start-of-text token where the model adds one. */
export interface GgufTokenCounter {
  /** The pre-tokenizer's name in the file ("smollm", "qwen2"). */
  readonly pre: string;
  count(text: string): number;
}

/**
 * HF pre-tokenizer configurations for llama.cpp's pre-tokenizer names (llama-vocab.cpp's
 * `LLAMA_VOCAB_PRE_TYPE_*` regexes, in tokenizer.json form). Only recipes checked token for token
 * against llama.cpp are listed: "gpt2" is byte-level BPE with GPT-2's split, "smollm" the same
 * with digits split one by one (SmolLM2's tokenizer.json). Others (Qwen2's own split, a
 * SentencePiece llama) are added once a test shows them equal to llama.cpp on real text.
 */
const BYTE_LEVEL = {
  type: 'ByteLevel',
  add_prefix_space: false,
  trim_offsets: true,
  use_regex: true,
};
const PRE_TOKENIZERS: Record<string, object> = {
  gpt2: BYTE_LEVEL,
  smollm: {
    type: 'Sequence',
    pretokenizers: [{ type: 'Digits', individual_digits: true }, BYTE_LEVEL],
  },
};

/** Token types llama.cpp reads as special (control and user-defined tokens). */
const CONTROL = 3;
const USER_DEFINED = 4;

/**
 * The token counter for the GGUF file at `uri` (read with `fetch`: a URL, or a blob: URL of a
 * dropped file), or null when its tokenizer is not one this module can rebuild.
 */
export async function ggufTokenCounter(
  uri: string,
  options: { fetch?: typeof fetch; allowLocalFile?: boolean } = {},
): Promise<GgufTokenCounter | null> {
  const { metadata } = await gguf(uri, {
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.allowLocalFile ? { allowLocalFile: true } : {}),
  });
  const m = metadata as unknown as Record<string, unknown>;
  const model = m['tokenizer.ggml.model'];
  const pre = String(m['tokenizer.ggml.pre'] ?? 'default');
  const tokens = m['tokenizer.ggml.tokens'];
  const merges = m['tokenizer.ggml.merges'];
  const types = m['tokenizer.ggml.token_type'];
  const preTokenizer = PRE_TOKENIZERS[pre];
  if (model !== 'gpt2' || !preTokenizer || !Array.isArray(tokens) || !Array.isArray(merges))
    return null;
  const vocab: Record<string, number> = {};
  (tokens as string[]).forEach((t, id) => (vocab[t] = id));
  const added = (tokens as string[]).flatMap((content, id) => {
    const type = Array.isArray(types) ? Number(types[id]) : 1;
    return type === CONTROL || type === USER_DEFINED
      ? [
          {
            id,
            content,
            special: type === CONTROL,
            single_word: false,
            lstrip: false,
            rstrip: false,
            normalized: false,
          },
        ]
      : [];
  });
  const tokenizer = new Tokenizer(
    {
      version: '1.0',
      added_tokens: added,
      normalizer: null,
      pre_tokenizer: preTokenizer,
      post_processor: null,
      decoder: { type: 'ByteLevel' },
      model: {
        type: 'BPE',
        vocab,
        merges: merges as string[],
        dropout: null,
        unk_token: null,
        continuing_subword_prefix: null,
        end_of_word_suffix: null,
        fuse_unk: false,
        byte_fallback: false,
        ignore_merges: false,
      },
    },
    {},
  );
  const bos = m['tokenizer.ggml.add_bos_token'] === true ? 1 : 0;
  return {
    pre,
    count: (text: string) => tokenizer.encode(text, { add_special_tokens: false }).ids.length + bos,
  };
}

/**
 * The address to give `ggufTokenCounter` with `blobFetch`: never fetched (the Blob answers), but
 * @huggingface/gguf takes a path without a scheme for a local file, which a page cannot read.
 */
export const BLOB_URI = 'https://blob.invalid/model.gguf';

/** A `fetch` that answers range requests from a Blob (a dropped file, a cached model). */
export function blobFetch(blob: Blob): typeof fetch {
  return (async (_input: RequestInfo | URL, init?: RequestInit) => {
    const range = new Headers(init?.headers).get('Range');
    const match = range ? /bytes=(\d+)-(\d*)/.exec(range) : null;
    const start = match ? Number(match[1]) : 0;
    const end = match && match[2] ? Number(match[2]) + 1 : blob.size;
    const part = blob.slice(start, end);
    return new Response(part, {
      status: match ? 206 : 200,
      headers: {
        'Content-Length': String(part.size),
        ...(match ? { 'Content-Range': `bytes ${start}-${end - 1}/${blob.size}` } : {}),
      },
    });
  }) as typeof fetch;
}
