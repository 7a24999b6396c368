// Default titles the renderer writes itself, by language (Typst localises outline and bibliography titles on its own).
export interface Words {
  figures: string;
  tables: string;
  references: string;
  equation: string;
}

const WORDS: Record<string, Words> = {
  en: { figures: 'List of Figures', tables: 'List of Tables', references: 'References', equation: 'Equation' },
  de: { figures: 'Abbildungsverzeichnis', tables: 'Tabellenverzeichnis', references: 'Literatur', equation: 'Gleichung' },
  fr: { figures: 'Table des figures', tables: 'Liste des tableaux', references: 'Références', equation: 'Équation' },
  es: { figures: 'Índice de figuras', tables: 'Índice de tablas', references: 'Referencias', equation: 'Ecuación' },
  it: { figures: 'Elenco delle figure', tables: 'Elenco delle tabelle', references: 'Riferimenti', equation: 'Equazione' },
  nl: { figures: 'Lijst van figuren', tables: 'Lijst van tabellen', references: 'Referenties', equation: 'Vergelijking' },
  pt: { figures: 'Lista de figuras', tables: 'Lista de tabelas', references: 'Referências', equation: 'Equação' },
  sr: { figures: 'Списак слика', tables: 'Списак табела', references: 'Литература', equation: 'Једначина' },
  ru: { figures: 'Список иллюстраций', tables: 'Список таблиц', references: 'Литература', equation: 'Уравнение' },
};

export function wordsFor(lang: string): Words {
  return WORDS[lang] ?? WORDS.en!;
}
