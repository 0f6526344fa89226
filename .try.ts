import { unifiedDiff } from './sdk/text-diff.ts'
const N=50000
const a = Array.from({length:N},(_,i)=>`line ${i} ${i%7}`)
const A=a.join('\n')+'\n'
const b3=[...a.slice(0,10000), ...a.slice(15000,40000), ...a.slice(10000,15000), ...a.slice(40000)]; const B=b3.join('\n')+'\n'
const ts:number[]=[]
for (let k=0;k<10;k++){ let t0=performance.now(); unifiedDiff(A,B); ts.push(performance.now()-t0) }
console.log(ts.map(x=>x.toFixed(0)).join(' '))
