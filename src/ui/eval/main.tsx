/**
 * @file Entry of evaluate.html, the evaluation page (docs/evaluation.md, "Evaluation page").
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { EvaluatePage } from './EvaluatePage';
import './eval.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <EvaluatePage />
  </StrictMode>,
);
