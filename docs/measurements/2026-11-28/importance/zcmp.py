# The N = 2048, D = 8 fits' posterior means of u: each importance-sampling fit (this folder) against each
# screened independence-sampler fit of docs/measurements/2026-11-27/screen-local, in combined standard
# errors. Run from the repository root: python3 docs/measurements/2026-11-28/importance/zcmp.py
import re,sys,glob
def parse(path, tag):
    m=[];s=[]
    for l in open(path):
        if re.search(tag+r": means \[",l): m.append([float(x) for x in l.split('[')[1].split(']')[0].split()])
        if re.search(tag+r": (mcse|se) \[",l): s.append([float(x) for x in l.split('[')[1].split(']')[0].split()])
    return m,s
imh=[]
for f in sorted(glob.glob('docs/measurements/2026-11-27/screen-local/n2048-d8-s*-screen.txt')):
    m,s=parse(f,'N=2048 warm'); imh.append((m[0],s[0]))
ism,iss=parse('docs/measurements/2026-11-28/importance/n2048-d8-split-reuse.txt','N=2048 warm-is')
allz=[]
for a,(m,s) in enumerate(imh):
  for b in range(len(ism)):
    z=[(x-y)/((u*u+v*v)**.5) for x,y,u,v in zip(ism[b],m,iss[b],s)]
    allz+=z
    print("IS seed",b+1,"IMH seed",a+1,"max|z| %.2f"%max(abs(x) for x in z))
print("mean z2 %.2f over %d"%(sum(x*x for x in allz)/len(allz),len(allz)))
