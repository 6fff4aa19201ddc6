"""Next-token agreement of ONNX decoder variants with a reference, teacher-forced along a text.

A probe, not a bench (BENCHMARKS.md, "The ONNX engine: 8-bit"): each model folder (the layout
scripts/gguf-to-onnx.py writes) reads the text's first 400 tokens at once, then one token a step
with its KV cache up to token 700; printed per variant: the share of steps whose top token is the
reference's, the mean KL divergence from the reference, the mean next-token loss of the true text
(reference and variant) and the largest logit difference.

Usage (a venv with numpy, onnxruntime and tokenizers):
  python agree.py TEXT.txt REFERENCE_DIR VARIANT_DIR [VARIANT_DIR ...]
"""
import sys, json, numpy as np, onnxruntime as ort
from tokenizers import Tokenizer
text_path, ref_dir, *others = sys.argv[1:]
text = open(text_path, encoding="utf-8").read()
tok = Tokenizer.from_file(ref_dir + '/tokenizer.json')
ids = tok.encode(text, add_special_tokens=False).ids[:700]
def run(d):
    so = ort.SessionOptions(); so.intra_op_num_threads = 2
    s = ort.InferenceSession(d + '/onnx/model.onnx', so)
    names = [i.name for i in s.get_inputs()]
    L = sum(1 for n in names if n.endswith('.key'))
    past = {f'past_key_values.{i}.{k}': np.zeros((1,3,0,64), np.float32) for i in range(L) for k in ('key','value')}
    outs = []
    P = 400
    def step(chunk, start):
        feed = dict(past)
        feed['input_ids'] = np.array([chunk], np.int64)
        feed['attention_mask'] = np.ones((1, start+len(chunk)), np.int64)
        feed['position_ids'] = np.arange(start, start+len(chunk), dtype=np.int64)[None]
        r = s.run(None, feed)
        on = [o.name for o in s.get_outputs()]
        for n, v in zip(on, r):
            if n.startswith('present'): past[n.replace('present','past_key_values')] = v
        return r[on.index('logits')][0, -1]
    outs.append(step(ids[:P], 0))
    for j in range(P, len(ids)-1):
        outs.append(step([ids[j]], j))
    return np.array(outs)
ref = run(ref_dir)
for d in others:
    o = run(d)
    agree = (o.argmax(-1) == ref.argmax(-1)).mean()
    def lsm(x): x = x - x.max(-1, keepdims=True); return x - np.log(np.exp(x).sum(-1, keepdims=True))
    pr, po = lsm(ref), lsm(o)
    kl = (np.exp(pr) * (pr - po)).sum(-1).mean()
    # next-token log-likelihood of the true text
    nxt = np.array(ids[400:len(ids)])
    ll_ref = pr[np.arange(len(nxt)), nxt].mean(); ll_o = po[np.arange(len(nxt)), nxt].mean()
    print(json.dumps({'model': d, 'top1_agree': round(float(agree),4), 'kl': round(float(kl),5), 'nll_ref': round(float(-ll_ref),4), 'nll': round(float(-ll_o),4), 'max_logit_diff': round(float(np.abs(o-ref).max()),3)}))
