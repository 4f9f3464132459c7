import json,re,sys,collections
for d in sys.argv[1:]:
    firsts=collections.Counter(); ends=collections.Counter(); n=0; rep=0
    for line in open(d+'/trajectories.jsonl'):
        t=json.loads(line); n+=1
        acts=[]
        for s in t['steps']:
            m=re.search(r'"command":"(.*?)"\}', s['action']); acts.append(m.group(1) if m else s['action'][:30])
        firsts[acts[0] if acts else None]+=1
        if len(acts)>=3 and acts[1]==acts[2]: rep+=1
        ends['success' if t['success'] else ('bought' if any('buy now' in a for a in acts) else 'nobuy')]+=1
    print(d, n, dict(firsts.most_common(4)), dict(ends), 'repeat-option', rep)
